import { Bar } from 'react-chartjs-2';
import { TableWrap } from '../../components/TableWrap';
import { chartTheme, themeColor, useColorScheme } from '../../components/charts';
import { formatCount } from '../../format/numbers';
import { creditSeries, type Usage } from './usage';

/** Credits used per day as bars, with the same numbers as a table for screen readers and keyboard users. */
export function UsageChart({ usage }: { usage: Usage }) {
  const { labels, values } = creditSeries(usage);
  const scheme = useColorScheme();
  const theme = chartTheme();
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
          options={{
            responsive: true,
            maintainAspectRatio: false,
            animation: false,
            plugins: { legend: { display: false } },
            scales: {
              x: {
                ticks: { color: theme.text, maxRotation: 0, autoSkipPadding: 12 },
                grid: { display: false },
              },
              y: {
                beginAtZero: true,
                ticks: { color: theme.text, precision: 0 },
                grid: { color: theme.grid },
              },
            },
          }}
        />
      </div>
      <details className="overview-numbers">
        <summary>Show the numbers</summary>
        <TableWrap label="Credits used and addresses verified per day">
          <table>
            <caption className="visually-hidden">Credits used and addresses verified per day</caption>
            <thead>
              <tr>
                <th scope="col">Day (UTC)</th>
                <th scope="col" className="num">
                  Credits used
                </th>
                <th scope="col" className="num">
                  Addresses verified
                </th>
              </tr>
            </thead>
            <tbody>
              {usage.days.map((day, i) => (
                <tr key={day.date}>
                  <th scope="row">{labels[i]}</th>
                  <td className="num">{formatCount(values[i]!)}</td>
                  <td className="num">
                    {formatCount(day.verifications.total + day.sandbox_verifications.total)}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableWrap>
      </details>
    </>
  );
}
