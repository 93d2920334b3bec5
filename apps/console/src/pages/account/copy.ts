// Copying a secret shown once: the Clipboard API where the browser allows it, else the text selected in its
// read-only field for the person to copy with the keyboard.

export interface CopyMeans {
  /** navigator.clipboard.writeText, when the browser has it (secure contexts only). */
  writeText?: (text: string) => Promise<void>;
  /** Selects the secret in its read-only field. */
  select: () => void;
  /** The older copy command on the selection (document.execCommand('copy')): true when it copied. */
  copySelection?: () => boolean;
}

/** `copied`: on the clipboard; `selected`: the field's text is selected, for Ctrl+C / ⌘C. */
export type CopyOutcome = 'copied' | 'selected';

export async function copySecret(text: string, means: CopyMeans): Promise<CopyOutcome> {
  if (means.writeText) {
    try {
      await means.writeText(text);
      return 'copied';
    } catch {
      // Refused (no permission, the page not focused): fall back to the selection.
    }
  }
  means.select();
  try {
    if (means.copySelection?.()) return 'copied';
  } catch {
    // Not supported: the selection stays for the person to copy.
  }
  return 'selected';
}

export function copyOutcomeWords(outcome: CopyOutcome): string {
  return outcome === 'copied'
    ? 'Copied to the clipboard.'
    : 'The browser did not let the page copy it: it is selected in the field, press Ctrl+C (⌘C on a Mac) to copy it.';
}
