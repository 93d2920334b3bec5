import { asProblem } from '../../api/problem';
import { errorWords } from '../../format/error-words';

/** Whether asking again may work (a network fault, a busy service, a rate limit), not after a refusal (402, 404…). */
export function retryable(error: unknown): boolean {
  const action = errorWords(asProblem(error)).action;
  return action === 'retry' || action === 'wait';
}
