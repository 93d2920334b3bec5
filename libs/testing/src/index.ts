export { MailWorld, type MailWorldOptions } from './mail-world';
export type { DomainSpec, MxSpec, SmtpHostSpec, SmtpReply } from './world-spec';
export { DNSBL_DOMAIN_ANSWER, DNSBL_IP_ANSWER } from './dns/dns-answer';
export type { HttpService } from './http/http-stand-ins';
export { eventually, type EventuallyOptions } from './eventually';
export * from './suite';
export * from './fixtures/xlsx';
export * from './webhooks';
export * from './nats/nats-cluster';
