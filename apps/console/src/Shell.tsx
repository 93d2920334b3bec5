import { Suspense, useEffect, useRef } from 'react';
import { NavLink, Outlet, useLocation } from 'react-router';
import { queryClient, useCredits } from './api/queries';
import { signOut, useSession } from './api/session';
import { ErrorBoundary } from './components/ErrorBoundary';
import { Loading } from './components/Loading';
import { OfflineBanner } from './components/OfflineBanner';
import { SandboxMarker } from './components/SandboxMarker';
import { formatCount } from './format/numbers';

const NAV = [
  { to: '/', label: 'Overview', end: true },
  { to: '/verify', label: 'Verify', end: false },
  { to: '/files', label: 'Files', end: false },
  { to: '/webhooks', label: 'Webhooks', end: false },
  { to: '/keys', label: 'Keys & usage', end: false },
];

/** Every signed-in page: skip link, header with the navigation and sign-out, banners, and the page itself. */
export function Shell() {
  const session = useSession();
  const { pathname } = useLocation();
  const main = useRef<HTMLElement>(null);
  const firstPath = useRef(pathname);
  // After a move to another page (not the first load), focus goes to the page itself, as a page load would
  // put it: a screen reader starts reading there, and the keyboard's next Tab is in the page.
  useEffect(() => {
    if (pathname === firstPath.current) return;
    firstPath.current = '';
    main.current?.focus();
  }, [pathname]);
  // The balance in the header, asked on every load: a key revoked meanwhile signs out at once (a 401).
  const credits = useCredits();
  // The key's prefix tells at once; the service's word (the mode of the key asking) confirms it.
  const sandbox = session.sandbox || credits.data?.mode === 'sandbox';
  return (
    <>
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="top">
        <div className="top__bar">
          <p className="brand">E-mail verification</p>
          {credits.data ? (
            <p className="top__balance">
              <span className="visually-hidden">Balance: </span>
              {formatCount(credits.data.credits_balance)} credits
            </p>
          ) : null}
          <button
            type="button"
            className="button button--quiet"
            onClick={() => {
              queryClient.clear();
              signOut();
            }}
          >
            Sign out
          </button>
        </div>
        <nav aria-label="Main">
          <ul className="nav">
            {NAV.map((item) => (
              <li key={item.to}>
                <NavLink to={item.to} end={item.end} className="nav__link">
                  {item.label}
                </NavLink>
              </li>
            ))}
          </ul>
        </nav>
        {sandbox ? (
          <div className="top__marker">
            <SandboxMarker />
          </div>
        ) : null}
      </header>
      <OfflineBanner />
      <main id="main" tabIndex={-1} ref={main}>
        <ErrorBoundary key={pathname}>
          <Suspense fallback={<Loading label="Loading the page…" />}>
            <Outlet />
          </Suspense>
        </ErrorBoundary>
      </main>
    </>
  );
}
