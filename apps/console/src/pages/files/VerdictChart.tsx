import { Bar } from 'react-chartjs-2';
import '../../components/charts';
import { chartTheme, statusColor } from '../../components/charts';
import { StatusBadge } from '../../components/StatusBadge';
import { formatCount } from '../../format/numbers';
import { STATUS_LOOK } from '../../format/status';
import type { VerdictRow } from './job-card';

/**
 * The verdicts as bars, each labelled with its word on the axis (colour is not needed to read it), and the same
 * numbers as a table with each verdict's badge and meaning.
 */
export function VerdictChart({ rows, running }: { rows: VerdictRow[]; running: boolean }) {
  const theme = chartTheme();
  const summary = rows.map((row) => `${STATUS_LOOK[row.status].label} ${formatCount(row.count)}`).join(', ');
  return (
    <>
      <div className="files-chart">
        <Bar
          role="img"
          aria-label={`Bar chart of the verdicts${running ? ' so far' : ''}: ${summary}.`}
          data={{
            labels: rows.map((row) => STATUS_LOOK[row.status].label),
            datasets: [
              {
                label: 'Addresses',
                data: rows.map((row) => row.count),
                backgroundColor: rows.map((row) => statusColor(row.status)),
                borderColor: theme.text,
                borderWidth: 1,
              },
            ],
          }}
          options={{
            indexAxis: 'y',
            responsive: true,
            maintainAspectRatio: false,
            animation: false,
            plugins: { legend: { display: false } },
            scales: {
              x: {
                beginAtZero: true,
                ticks: { color: theme.text, precision: 0 },
                grid: { color: theme.grid },
              },
              y: { ticks: { color: theme.text }, grid: { display: false } },
            },
          }}
        />
      </div>
      <div className="table-wrap">
        <table>
          <caption>Addresses per verdict{running ? ', so far' : ''}</caption>
          <thead>
            <tr>
              <th scope="col">Verdict</th>
              <th scope="col" className="num">
                Addresses
              </th>
              <th scope="col" className="num">
                Share
              </th>
              <th scope="col">What it means</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((row) => (
              <tr key={row.status}>
                <th scope="row">
                  <StatusBadge status={row.status} />
                </th>
                <td className="num">{formatCount(row.count)}</td>
                <td className="num">{row.share}</td>
                <td>{STATUS_LOOK[row.status].meaning}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </>
  );
}
