import { useEffect, useId, useRef, useState, type DragEvent } from 'react';
import { Link } from 'react-router';
import { queryClient } from '../../api/queries';
import { ErrorMessage } from '../../components/ErrorMessage';
import { formatCount } from '../../format/numbers';
import { fileKind, guessEmailColumn, type ColumnGuess, type FileKind } from './columns';
import { retryable } from './errors';
import { readFirstRows } from './first-rows';
import { formatBytes, uploadPercent } from './job-card';
import { filesKeys } from './queries';
import { uploadFile, type FileJob } from './upload';

type Reading =
  | { state: 'idle' }
  | { state: 'reading' }
  | { state: 'read'; guess: ColumnGuess | undefined }
  | { state: 'unreadable' };

interface Chosen {
  file: File;
  kind: FileKind | undefined;
}

const KIND_WORDS: Record<FileKind, string> = { csv: 'CSV', txt: 'text', xlsx: 'XLSX spreadsheet' };

/** "Email (120 addresses in the first rows)". */
function optionText(column: ColumnGuess['columns'][number]): string {
  const found =
    column.addresses === 0
      ? 'no address in the first rows'
      : `${formatCount(column.addresses)} address${column.addresses === 1 ? '' : 'es'} in the first rows`;
  return `${column.label} (${found})`;
}

/**
 * Choosing a file (drop it on the zone, or the file input, which the keyboard reaches), seeing which column
 * will be verified and changing it, then uploading it with a progress bar.
 */
export function UploadPanel() {
  const inputId = useId();
  const columnId = useId();
  const hintId = useId();
  const input = useRef<HTMLInputElement>(null);
  const [chosen, setChosen] = useState<Chosen | undefined>();
  const [reading, setReading] = useState<Reading>({ state: 'idle' });
  const [column, setColumn] = useState<number | undefined>();
  /** The column typed by its header, when the first rows could not be read here. */
  const [named, setNamed] = useState('');
  const [over, setOver] = useState(false);
  const [sent, setSent] = useState<number | undefined>();
  const [uploaded, setUploaded] = useState<{ job: FileJob; columnLabel: string | undefined } | undefined>();
  const [error, setError] = useState<unknown>();
  const upload = useRef<AbortController | undefined>(undefined);

  // Leaving the page stops an upload under way.
  useEffect(() => () => upload.current?.abort(), []);

  function choose(file: File | undefined) {
    setUploaded(undefined);
    setError(undefined);
    setSent(undefined);
    setColumn(undefined);
    setNamed('');
    if (!file) {
      setChosen(undefined);
      setReading({ state: 'idle' });
      return;
    }
    const kind = fileKind(file.name);
    setChosen({ file, kind });
    if (!kind) {
      setReading({ state: 'idle' });
      return;
    }
    setReading({ state: 'reading' });
    readFirstRows(file, kind).then(
      (rows) => {
        const guess = guessEmailColumn(rows);
        setReading({ state: 'read', guess });
        setColumn(guess?.chosen);
      },
      () => setReading({ state: 'unreadable' }),
    );
  }

  function onDrop(event: DragEvent<HTMLDivElement>) {
    event.preventDefault();
    setOver(false);
    if (sent !== undefined) return;
    choose(event.dataTransfer.files[0]);
  }

  const guess = reading.state === 'read' ? reading.guess : undefined;
  const picked = guess && column !== undefined ? guess.columns[column] : undefined;
  const emailColumn =
    picked?.field ?? (reading.state === 'unreadable' && named.trim() ? named.trim() : undefined);
  const uploading = sent !== undefined && !uploaded && error === undefined;

  async function send() {
    if (!chosen) return;
    const controller = new AbortController();
    upload.current = controller;
    setError(undefined);
    setUploaded(undefined);
    setSent(0);
    try {
      const job = await uploadFile({
        file: chosen.file,
        ...(emailColumn ? { emailColumn } : {}),
        onProgress: (loaded, total) => setSent(uploadPercent(loaded, total)),
        signal: controller.signal,
      });
      setSent(100);
      setUploaded({ job, columnLabel: picked?.label });
      setChosen(undefined);
      setReading({ state: 'idle' });
      if (input.current) input.current.value = '';
      void queryClient.invalidateQueries({ queryKey: filesKeys.all });
    } catch (caught) {
      if (caught instanceof DOMException && caught.name === 'AbortError') {
        setSent(undefined);
        return;
      }
      setError(caught);
    } finally {
      upload.current = undefined;
    }
  }

  return (
    <section aria-labelledby="upload-heading" className="files-upload">
      <h2 id="upload-heading">Upload a list</h2>
      <div
        className={`files-drop${over ? ' files-drop--over' : ''}`}
        onDragOver={(event) => {
          event.preventDefault();
          event.dataTransfer.dropEffect = 'copy';
          setOver(true);
        }}
        onDragLeave={() => setOver(false)}
        onDrop={onDrop}
      >
        <p className="files-drop__title">Drop a CSV, XLSX or TXT file here</p>
        <p className="hint" id={hintId}>
          One address per line in a TXT file; a CSV or an XLSX spreadsheet (its first sheet) may have other
          columns.
        </p>
        <label htmlFor={inputId} className="files-drop__label">
          Or choose a file of addresses
        </label>
        <input
          ref={input}
          id={inputId}
          type="file"
          className="files-drop__input"
          accept=".csv,.xlsx,.txt,text/csv,text/plain,application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
          aria-describedby={hintId}
          disabled={uploading}
          onChange={(event) => choose(event.target.files?.[0])}
        />
      </div>

      {chosen ? (
        <div className="files-chosen">
          <p>
            <strong>{chosen.file.name}</strong>, {formatBytes(chosen.file.size)}
            {chosen.kind ? `, ${KIND_WORDS[chosen.kind]}` : ''}
          </p>
          {chosen.kind === undefined ? (
            <div className="notice notice--error" role="alert">
              <p className="notice__title">This file cannot be verified</p>
              <p>
                Only CSV (.csv), XLSX (.xlsx) and text (.txt) files can be uploaded. Save it as one of these
                first.
              </p>
            </div>
          ) : null}
          {reading.state === 'reading' ? <p role="status">Reading the first rows…</p> : null}
          {reading.state === 'unreadable' ? (
            <div className="form files-column">
              <label htmlFor={columnId}>Address column (optional)</label>
              <input
                id={columnId}
                className="input"
                value={named}
                disabled={uploading}
                aria-describedby={`${columnId}-hint`}
                onChange={(event) => setNamed(event.target.value)}
              />
              <p className="hint" id={`${columnId}-hint`}>
                The first rows of this file could not be read here, so the service finds the address column
                and names it once the file is uploaded. To choose it yourself, type its header as written in
                the first row, such as Email.
              </p>
            </div>
          ) : null}
          {reading.state === 'read' && !guess ? (
            <div className="notice notice--warn" role="alert">
              <p className="notice__title">No address found in the first rows</p>
              <p>The service refuses a file without addresses. Check that this is the right file.</p>
            </div>
          ) : null}
          {guess && guess.columns.length > 1 ? (
            <div className="form files-column">
              <label htmlFor={columnId}>Address column</label>
              <select
                id={columnId}
                value={column ?? guess.chosen}
                disabled={uploading}
                onChange={(event) => setColumn(Number(event.target.value))}
              >
                {guess.columns.map((option) => (
                  <option key={option.index} value={option.index}>
                    {optionText(option)}
                  </option>
                ))}
              </select>
              {picked && picked.sample.length > 0 ? (
                <p className="files-column__sample">
                  First values: <span className="mono">{picked.sample.join(', ')}</span>
                </p>
              ) : null}
              <p className="hint">
                Detected from the first rows
                {guess.hasHeader ? ' and their header' : ' (the file has no header row)'}. Pick another column
                if this is not the one holding the addresses.
              </p>
            </div>
          ) : null}
          {guess && guess.columns.length === 1 ? (
            <p className="hint">The addresses are read from the file’s only column.</p>
          ) : null}
          <div className="actions">
            <button
              type="button"
              className="button button--primary"
              disabled={uploading || chosen.kind === undefined || reading.state === 'reading'}
              onClick={() => void send()}
            >
              Upload and verify
            </button>
            {uploading ? (
              <button type="button" className="button" onClick={() => upload.current?.abort()}>
                Stop the upload
              </button>
            ) : (
              <button type="button" className="button button--quiet" onClick={() => choose(undefined)}>
                Choose another file
              </button>
            )}
          </div>
        </div>
      ) : null}

      {uploading ? (
        <div className="files-progress">
          <label htmlFor={`${inputId}-progress`}>Upload progress</label>
          <progress id={`${inputId}-progress`} max={100} value={sent}>
            {sent}%
          </progress>
          <span aria-hidden="true">
            {sent === 100 ? 'Sent; the service is reading the file…' : `${sent}% sent`}
          </span>
        </div>
      ) : null}

      {error !== undefined ? (
        <ErrorMessage
          error={error}
          context={chosen ? `Uploading ${chosen.file.name}` : 'Uploading'}
          onRetry={chosen && retryable(error) ? () => void send() : undefined}
        />
      ) : null}

      {uploaded ? (
        <div className="notice files-accepted" role="status">
          <p className="notice__title">
            <span className="notice__glyph" aria-hidden="true">
              ✓
            </span>
            {uploaded.job.file_name} was accepted
          </p>
          <p>
            {formatCount(uploaded.job.unique_emails)} unique address
            {uploaded.job.unique_emails === 1 ? '' : 'es'} from {formatCount(uploaded.job.total_rows)} row
            {uploaded.job.total_rows === 1 ? '' : 's'} are being verified, read from the column “
            {uploaded.job.email_column}”.
          </p>
          <p>
            <Link to={`/files/${uploaded.job.task_id}`} state={{ fileName: uploaded.job.file_name }}>
              Follow the verification of {uploaded.job.file_name}
            </Link>
          </p>
        </div>
      ) : null}
    </section>
  );
}
