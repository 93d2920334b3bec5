import type { VerificationStatus } from '@emailverify/contracts';
import { useMutation } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { ErrorMessage } from '../../components/ErrorMessage';
import { STATUS_LOOK, STATUS_ORDER } from '../../format/status';
import { downloadResults } from './download';
import { fallbackName } from './results';
import type { JobCard } from './job-card';

interface Props {
  jobId: string;
  fileName: string;
  card: JobCard;
}

/**
 * The downloads: every row, or only the rows of the ticked verdicts (the API's filtered download, OR); while
 * the job runs, the rows verified so far (the partial download), with the same choice.
 */
export function DownloadPanel({ jobId, fileName, card }: Props) {
  const hintId = useId();
  const [ticked, setTicked] = useState<ReadonlySet<VerificationStatus>>(() => new Set(['valid']));
  const partial = card.canDownloadPartial;
  const download = useMutation({
    mutationFn: (statuses: readonly VerificationStatus[]) =>
      downloadResults({ jobId, statuses, partial, fallbackName: fallbackName(fileName, partial) }),
  });

  if (card.filesDeleted) {
    return (
      <p>
        The files of this job were deleted after the retention period, so its results can no longer be
        downloaded. The numbers above stay.
      </p>
    );
  }
  if (!card.canDownload && !partial) {
    return (
      <p>This job ended without results to download: a {card.look.label.toLowerCase()} job keeps none.</p>
    );
  }

  const chosen = STATUS_ORDER.filter((status) => ticked.has(status));
  const toggle = (status: VerificationStatus, on: boolean) =>
    setTicked((current) => {
      const next = new Set(current);
      if (on) next.add(status);
      else next.delete(status);
      return next;
    });

  return (
    <>
      {partial ? (
        <p>
          The job is still under way: a download holds the rows verified so far, from the top of the file.
          Download again later for more, or wait for the whole file.
        </p>
      ) : (
        <p>The result file has your original columns, then the verdict of each address.</p>
      )}
      <div className="actions">
        <button
          type="button"
          className="button button--primary"
          disabled={download.isPending}
          onClick={() => download.mutate([])}
        >
          {partial ? 'Download the rows verified so far' : 'Download all rows'}
        </button>
      </div>
      <fieldset className="files-filter">
        <legend>Only some verdicts</legend>
        <p className="hint" id={hintId}>
          Tick the verdicts to keep, such as Valid alone for a list that is safe to send to.
        </p>
        <div className="files-filter__options">
          {STATUS_ORDER.map((status) => (
            <label key={status} className="checkbox">
              <input
                type="checkbox"
                checked={ticked.has(status)}
                aria-describedby={hintId}
                onChange={(event) => toggle(status, event.target.checked)}
              />
              {STATUS_LOOK[status].label}
            </label>
          ))}
        </div>
        <div className="actions">
          <button
            type="button"
            className="button"
            disabled={download.isPending || chosen.length === 0}
            onClick={() => download.mutate(chosen)}
          >
            {partial ? 'Download the ticked verdicts verified so far' : 'Download the ticked verdicts'}
          </button>
        </div>
        {chosen.length === 0 ? <p className="hint">Tick at least one verdict.</p> : null}
      </fieldset>
      <p role="status" className="files-download-status">
        {download.isPending ? 'Preparing the download…' : download.isSuccess ? `Saved ${download.data}.` : ''}
      </p>
      {download.isError ? <ErrorMessage error={download.error} context="Downloading the results" /> : null}
    </>
  );
}
