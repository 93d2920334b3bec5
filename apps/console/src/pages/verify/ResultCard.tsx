import type { VerificationResult } from '@emailverify/client';
import { StatusBadge } from '../../components/StatusBadge';
import { formatScore } from '../../format/numbers';
import { STATUS_LOOK, isStatus, reasonWords } from '../../format/status';
import { withSuggestedDomain } from './addresses';
import { Fact, Facts } from '../../components/Facts';

interface Props {
  result: VerificationResult;
  /** Called with the suggested address when the person takes the "did you mean" suggestion. */
  onSuggestion: (address: string) => void;
}

/** Whether two sentences say the same, ignoring case and the full stop. */
function sameWords(a: string, b: string): boolean {
  const plain = (text: string) => text.trim().replace(/\.$/, '').toLowerCase();
  return plain(a) === plain(b);
}

function flagsOf(result: VerificationResult): string[] {
  const flags: string[] = [];
  if (result.is_deliverable) flags.push('Deliverable');
  else flags.push('Not deliverable');
  if (result.is_disposable) flags.push('Disposable provider');
  if (result.is_catchall) flags.push('Catch-all domain');
  if (result.is_role) flags.push('Role address');
  if (result.is_free) flags.push('Free e-mail provider');
  if (result.domain_reputation.is_listed) flags.push('On a blocklist');
  return flags;
}

/** One verdict: status badge, score, flags, the reason in words, mail servers, and "did you mean …?". */
export function ResultCard({ result, onSuggestion }: Props) {
  const suggested = result.domain_suggestion
    ? withSuggestedDomain(result.email, result.domain_suggestion)
    : '';
  return (
    <article className="card verify-result" aria-labelledby="result-heading">
      <header className="verify-result__head">
        <h3 id="result-heading" className="verify-result__email">
          {result.email}
        </h3>
        <StatusBadge status={result.status} />
      </header>
      {isStatus(result.status) ? (
        <p className="verify-result__meaning">{STATUS_LOOK[result.status].meaning}.</p>
      ) : null}
      {suggested ? (
        <p className="notice notice--warn verify-result__suggestion">
          Did you mean{' '}
          <button type="button" className="button button--link" onClick={() => onSuggestion(suggested)}>
            {suggested}
          </button>
          ?
        </p>
      ) : null}
      <Facts>
        <Fact term="Score">
          <meter
            className="verify-result__meter"
            min={0}
            max={1}
            low={0.5}
            high={0.8}
            optimum={1}
            value={result.score}
          >
            {formatScore(result.score)}
          </meter>{' '}
          {formatScore(result.score)} confidence
        </Fact>
        <Fact term="Why">{reasonWords(result.reason)}</Fact>
        <Fact term="Flags">
          <ul className="verify-result__flags">
            {flagsOf(result).map((flag) => (
              <li key={flag}>{flag}</li>
            ))}
          </ul>
        </Fact>
        <Fact term="Mail servers">
          {result.mx_records.length > 0 ? (
            <ul className="verify-result__mx">
              {result.mx_records.map((mx) => (
                <li key={mx} className="mono">
                  {mx}
                </li>
              ))}
            </ul>
          ) : (
            'None found'
          )}
        </Fact>
        {result.smtp_check && result.smtp_response ? (
          <Fact term="Mail server said" mono>
            {result.smtp_response}
          </Fact>
        ) : null}
        {result.error_message && !sameWords(result.error_message, reasonWords(result.reason)) ? (
          <Fact term="Note">{result.error_message}</Fact>
        ) : null}
        <Fact term="Credits used">{result.credits_used}</Fact>
      </Facts>
    </article>
  );
}
