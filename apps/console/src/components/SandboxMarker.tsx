/** Shown on every page while a sandbox key (ev_test_…) is signed in. */
export function SandboxMarker() {
  return (
    <p className="sandbox-marker">
      <span aria-hidden="true">⚑ </span>
      <strong>Sandbox key</strong> — canned answers, no charge
    </p>
  );
}
