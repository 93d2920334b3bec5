export {
  MAX_ADDRESS_OCTETS,
  MAX_LOCAL_PART_OCTETS,
  assertValidAddress,
  assertValidDomain,
  parseAddress,
  parseDomain,
  parseNormalised,
  type AddressError,
  type AddressParseResult,
  type DomainParseResult,
  type ParsedAddress,
} from './address';
export type { Clock, DialTarget, Dialer, FetchLike, Random, VerificationDependencies } from './dependencies';
export {
  DNS_ERROR,
  DomainFactsLookup,
  createDiagnosticResolver,
  createNodeResolver,
  dnsError,
  dnsErrorCode,
  type DiagnosticResolver,
  type DomainFacts,
  type MailHost,
  type MxRecord,
  type NodeResolverOptions,
  type Resolver,
} from './dns';
export {
  DOCTOR_CHECKS,
  doctorDependencies,
  runDoctor,
  type DoctorCheck,
  type DoctorCheckName,
  type DoctorDependencies,
  type DoctorStatus,
  type DoctorTarget,
} from './doctor';
export {
  DomainReporter,
  dmarcPolicy,
  type DomainReportOptions,
  type DomainReportParts,
} from './domain-report';
export { ReputationChecker, isListingAnswer, type DnsblZones, type ReputationCheck } from './dnsbl';
export {
  STATUS_SCORES,
  VerificationEngine,
  decide,
  fallbackResult,
  scoreFor,
  syntaxFailureResult,
  type AddExtrasOptions,
  type Finding,
  type VerifyManyOptions,
  type VerifyOptions,
} from './engine';
export {
  dnsQueryOutcome,
  observedResolver,
  type DnsQueryOutcome,
  type DnsQueryType,
  type VerificationObserver,
} from './observer';
export { ExtrasLookup, type ExtrasOptions, type GravatarInfo } from './extras';
export {
  checkDisposable,
  editDistance,
  isDisposableDomain,
  isFreeProvider,
  isRoleLocalPart,
  suggestDomain,
  type DisposableCheck,
} from './lists';
export {
  SANDBOX_BLOCKLIST,
  SANDBOX_MX_HOST,
  SANDBOX_MX_IP,
  SANDBOX_SUGGESTION,
  SANDBOX_TRIGGERS,
  sandboxDisposable,
  sandboxDomainReport,
  sandboxTableRows,
  sandboxTrigger,
  sandboxVerdict,
  type SandboxOptions,
  type SandboxRouting,
  type SandboxTrigger,
} from './sandbox';
export { createDefaultDependencies, secureRandom, systemClock } from './node-dependencies';
export { DEFAULT_TUNING, defaultVerificationOptions, type VerificationOptions } from './options';
export { DEFAULT_PROVIDER_RULES, ProviderRules, parseProviderRules, type ProviderRule } from './providers';
export {
  KeyedSemaphore,
  LocalMxLimiter,
  RedisMxLimiter,
  SmtpProber,
  netDialer,
  parseSocksProxyUrl,
  socksDialer,
  type MxLimiter,
  type RedisMxLimiterOptions,
  type SmtpOutcome,
  type SmtpProbeOptions,
  type SocksProxy,
} from './smtp';
