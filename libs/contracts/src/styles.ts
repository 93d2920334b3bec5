/** Response styles: the envelope (current) and the older unwrapped replies (legacy). */
export const RESPONSE_STYLES = ['current', 'legacy'] as const;
export type ResponseStyle = (typeof RESPONSE_STYLES)[number];

export function isResponseStyle(value: unknown): value is ResponseStyle {
  return value === 'current' || value === 'legacy';
}
