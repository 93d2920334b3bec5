import { Bar } from 'react-chartjs-2';
import { DataTable, numeric } from '../../components/DataTable';
import { countBarOptions, themeColor, useColorScheme } from '../../components/charts';
import { formatCount } from '../../format/numbers';
import { creditSeries, type Usage } from './usage';

const CAPTION = 'Credits used and addresses verified per day';
const COLUMNS = ['Day (UTC)', numeric('Credits used'), numeric('Addresses verified')];

/** Credits used per day as bars, with the same numbers as a table for screen readers and keyboard users. */
export function UsageChart({ usage }: { usage: Usage }) {
  const { labels, values } = creditSeries(usage);
  const scheme = useColorScheme();
  const total = usage.totals.credits_used;
  const verified = usage.totals.verifications.total + usage.totals.sandbox_verifications.total;
  const summary = `${formatCount(Math.max(0, total))} credits used and ${formatCount(verified)} addresses verified from ${labels[0]} to ${labels.at(-1)}.`;
  return (
    <>
      <p>{summary}</p>
      <div className="overview-chart">
        <Bar
          key={scheme}
          role="img"
          aria-label={`Bar chart of credits used per day. ${summary}`}
          data={{
            labels,
            datasets: [{ label: 'Credits used', data: values, backgroundColor: themeColor('--chart-1') }],
          }}
          options={countBarOptions('x', { maxRotation: 0, autoSkipPadding: 12 })}
        />
      </div>
      <details className="overview-numbers">
        <summary>Show the numbers</summary>
        <DataTable label={CAPTION} caption={CAPTION} columns={COLUMNS}>
          {usage.days.map((day, i) => (
            <tr key={day.date}>
              <th scope="row">{labels[i]}</th>
              <td className="num">{formatCount(values[i]!)}</td>
              <td className="num">
                {formatCount(day.verifications.total + day.sandbox_verifications.total)}
              </td>
            </tr>
          ))}
        </DataTable>
      </details>
    </>
  );
}
