import type { BilledDomainReport } from '@emailverify/contracts';
import type { Presenter } from '../common/http/presenter';

const domainReportBody = (r: BilledDomainReport) => ({
  domain: r.domain,
  accepts_mail: r.acceptsMail,
  reason: r.reason,
  mx_records: r.mxRecords,
  mx_hosts: r.mxHosts.map((h) => ({ host: h.host, preference: h.preference, addresses: h.addresses })),
  has_null_mx: r.hasNullMx,
  implicit_mx: r.implicitMx,
  is_catchall: r.isCatchall,
  is_disposable: r.isDisposable,
  is_free: r.isFree,
  domain_age: r.domainAge,
  domain_reputation: {
    mx_ip: r.domainReputation.mxIp,
    is_listed: r.domainReputation.isListed,
    blacklists: r.domainReputation.blacklists,
    checked: r.domainReputation.checked,
    mx_ips: r.domainReputation.mxIps.map((l) => ({ ip: l.ip, blacklists: l.blacklists })),
  },
  spf: { present: r.spf.present, record: r.spf.record },
  dmarc: { present: r.dmarc.present, policy: r.dmarc.policy },
  credits_used: r.creditsUsed,
  response_time: r.responseTime,
});

/** No older variant of this reply exists: both styles carry the same fields (legacy without the envelope). */
export const DomainReportPresenter: Presenter<BilledDomainReport> = {
  current: domainReportBody,
  legacy: domainReportBody,
};
