export { SmtpConnection, SmtpSessionError } from './connection';
export { netDialer } from './dialer';
export { SmtpProber, type SmtpOutcome, type SmtpProbeOptions, type SmtpProbeRequest } from './probe';
export { ReplyParser, SmtpProtocolError, formatReply, type SmtpReply } from './reply';
export { KeyedSemaphore, type Release } from './semaphore';
export { LocalMxLimiter, RedisMxLimiter, type MxLimiter, type RedisMxLimiterOptions } from './limiter';
export { parseSocksProxyUrl, socksDialer, type SocksProxy } from './socks';
export { startTls } from './tls';
