export { SmtpConnection, SmtpSessionError } from './connection';
export { netDialer } from './dialer';
export { SmtpProber, type SmtpOutcome, type SmtpProbeOptions, type SmtpProbeRequest } from './probe';
export { ReplyParser, SmtpProtocolError, formatReply, type SmtpReply } from './reply';
export { KeyedSemaphore, type Release } from './semaphore';
