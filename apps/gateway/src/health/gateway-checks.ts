import { type RpcSubject, Subjects } from '@emailverify/contracts';
import type { MessageBus } from '@emailverify/messaging';
import type { HealthCheck } from '@emailverify/service-kit';

/** Services the gateway needs; ready means each answers its ping (which checks its own database). */
const REQUIRED_SERVICES: Array<{ name: string; subject: RpcSubject & `${string}.health.ping` }> = [
  { name: 'credits', subject: Subjects.creditsPing },
  { name: 'verifier', subject: Subjects.verifierPing },
  { name: 'file-jobs', subject: Subjects.filesPing },
  { name: 'webhooks', subject: Subjects.webhooksPing },
];

export function serviceChecks(bus: MessageBus): HealthCheck[] {
  return REQUIRED_SERVICES.map(({ name, subject }) => ({
    name,
    check: async () => {
      await bus.request(subject, {}, { timeoutMs: 1_500 });
    },
  }));
}
