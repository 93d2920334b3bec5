import { type Breaker, breakerWords } from './delivery';

/** While the webhook's circuit breaker holds its deliveries back: until when, and what happens then. */
export function BreakerNotice({ breaker }: { breaker: Breaker | undefined }) {
  const words = breakerWords(breaker);
  if (!words) return null;
  return (
    <p className="notice notice--warn">
      <span className="notice__glyph" aria-hidden="true">
        ‖
      </span>
      {words}
    </p>
  );
}
