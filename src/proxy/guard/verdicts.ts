// Guard answers in the project's one HTTP error shape (`{ error, error_description }`, see http-error.ts),
// built as verdicts because the forwarder, not the guard, owns the client's response.
import type { GuardVerdict } from './types.js';

export function errorVerdict(status: number, error: string, description: string): GuardVerdict {
  return {
    action: 'reject',
    status,
    contentType: 'application/json',
    body: JSON.stringify({ error, error_description: description }),
  };
}

/** A step's CustomResponse (`reject_status`, `reject_message`; the translator fills the API defaults). */
export function customRejection(g: { rejectStatus: number; rejectMessage: string }): GuardVerdict {
  return errorVerdict(
    g.rejectStatus || 403,
    'prompt_guard_rejected',
    g.rejectMessage || 'The request was rejected by a prompt guard.',
  );
}
