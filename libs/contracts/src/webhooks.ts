/** Webhook event kinds (API_SPEC 6.1); no others exist. */
export const WEBHOOK_EVENTS = ['file.completed', 'file.failed'] as const;
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];
