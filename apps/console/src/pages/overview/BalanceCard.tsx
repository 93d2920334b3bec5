import { useCredits } from '../../api/queries';
import { ErrorMessage } from '../../components/ErrorMessage';
import { Loading } from '../../components/Loading';
import { formatCount, formatDateTime } from '../../format/numbers';
import { Fact, Facts } from '../../components/Facts';

/** The account's balance: what is left, what was used and added over its life. */
export function BalanceCard() {
  const credits = useCredits();
  return (
    <section className="card" aria-labelledby="balance-heading">
      <h2 id="balance-heading">Balance</h2>
      {credits.isPending ? <Loading label="Loading the balance…" /> : null}
      {credits.isError ? (
        <ErrorMessage
          error={credits.error}
          context="Loading the balance"
          onRetry={() => void credits.refetch()}
        />
      ) : null}
      {credits.data ? (
        <>
          <p className="figure">
            {formatCount(credits.data.credits_balance)} <span className="overview-unit">credits</span>
          </p>
          <Facts>
            <Fact term="Used so far">{formatCount(credits.data.credits_consumed)}</Fact>
            <Fact term="Added so far">{formatCount(credits.data.credits_added)}</Fact>
            <Fact term="Updated">{formatDateTime(credits.data.last_updated)}</Fact>
          </Facts>
          {credits.data.mode === 'sandbox' ? (
            <p className="hint">
              A sandbox key is never charged: its verifications leave the balance as it is.
            </p>
          ) : null}
        </>
      ) : null}
    </section>
  );
}
