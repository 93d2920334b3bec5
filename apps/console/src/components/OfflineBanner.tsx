import { useConnectivity } from '../api/connectivity';

/** A banner while the browser is offline or the service cannot be reached. */
export function OfflineBanner() {
  const connectivity = useConnectivity();
  if (connectivity === 'online') return null;
  return (
    <div className="banner banner--offline" role="status">
      <span aria-hidden="true">⚠ </span>
      {connectivity === 'offline'
        ? 'You are offline. What you see may be out of date; the console carries on once you are back online.'
        : 'The service cannot be reached just now. What you see may be out of date.'}
    </div>
  );
}
