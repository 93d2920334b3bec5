import { Bar } from 'react-chartjs-2';
import { chartTheme, countBarOptions, statusColor, useColorScheme } from '../../components/charts';
import { DataTable, numeric } from '../../components/DataTable';
import { StatusBadge } from '../../components/StatusBadge';
import { formatCount } from '../../format/numbers';
import { STATUS_LOOK } from '../../format/status';
import type { VerdictRow } from './job-card';

const COLUMNS = ['Verdict', numeric('Addresses'), numeric('Share'), 'What it means'];

/**
 * The verdicts as bars, each labelled with its word on the axis (colour is not needed to read it), and the same
 * numbers as a table with each verdict's badge and meaning.
 */
export function VerdictChart({ rows, running }: { rows: VerdictRow[]; running: boolean }) {
  const scheme = useColorScheme();
  const theme = chartTheme();
  const summary = rows.map((row) => `${STATUS_LOOK[row.status].label} ${formatCount(row.count)}`).join(', ');
  return (
    <>
      <div className="files-chart">
        <Bar
          key={scheme}
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
          options={countBarOptions('y')}
        />
      </div>
      <DataTable
        label="Addresses per verdict"
        caption={`Addresses per verdict${running ? ', so far' : ''}`}
        captionVisible
        columns={COLUMNS}
      >
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
      </DataTable>
    </>
  );
}
