import { Suspense } from 'react';
import { NavLink, Outlet, useLocation } from 'react-router';
import { queryClient } from './api/queries';
import { signOut, useSession } from './api/session';
import { ErrorBoundary } from './components/ErrorBoundary';
import { Loading } from './components/Loading';
import { OfflineBanner } from './components/OfflineBanner';
import { SandboxMarker } from './components/SandboxMarker';

const NAV = [
  { to: '/', label: 'Overview', end: true },
  { to: '/verify', label: 'Verify', end: false },
  { to: '/files', label: 'Files', end: false },
  { to: '/webhooks', label: 'Webhooks', end: false },
  { to: '/keys', label: 'Keys & usage', end: false },
];

/** Every signed-in page: skip link, header with the navigation and sign-out, banners, and the page itself. */
export function Shell() {
  const { sandbox } = useSession();
  const { pathname } = useLocation();
  return (
    <>
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="top">
        <div className="top__bar">
          <p className="brand">E-mail verification</p>
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
      <main id="main" tabIndex={-1}>
        <ErrorBoundary key={pathname}>
          <Suspense fallback={<Loading label="Loading the page…" />}>
            <Outlet />
          </Suspense>
        </ErrorBoundary>
      </main>
    </>
  );
}
