import { lazy } from 'react';
import { BrowserRouter, Route, Routes } from 'react-router';
import { useSessionState } from './api/session';
import { OfflineBanner } from './components/OfflineBanner';
import { SignInPage } from './pages/SignInPage';
import { Shell } from './Shell';

// One chunk per page, loaded when first visited: the first load carries the shell and the sign-in page only.
const OverviewPage = lazy(() => import('./pages/overview/OverviewPage'));
const VerifyPage = lazy(() => import('./pages/verify/VerifyPage'));
const FilesPage = lazy(() => import('./pages/files/FilesPage'));
const JobPage = lazy(() => import('./pages/files/JobPage'));
const WebhooksPage = lazy(() => import('./pages/webhooks/WebhooksPage'));
const KeysPage = lazy(() => import('./pages/keys/KeysPage'));
const NotFoundPage = lazy(() => import('./pages/NotFoundPage'));

export function App() {
  const { session, signedOutReason } = useSessionState();
  return (
    <BrowserRouter basename="/console">
      {session ? (
        <Routes>
          <Route element={<Shell />}>
            <Route index element={<OverviewPage />} />
            <Route path="verify" element={<VerifyPage />} />
            <Route path="files" element={<FilesPage />} />
            <Route path="files/:id" element={<JobPage />} />
            <Route path="webhooks" element={<WebhooksPage />} />
            <Route path="keys" element={<KeysPage />} />
            <Route path="*" element={<NotFoundPage />} />
          </Route>
        </Routes>
      ) : (
        <>
          <OfflineBanner />
          <SignInPage reason={signedOutReason} />
        </>
      )}
    </BrowserRouter>
  );
}
