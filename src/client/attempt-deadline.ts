import type { DeadlineEntry } from './deadlines.js';

/** An attempt's connect deadline, as its lane keeps it. */
export interface AttemptDeadline extends DeadlineEntry {
  readonly expire: () => void;
}

/** What the lane calls when an attempt's deadline passes. */
export const expireAttempt = (entry: AttemptDeadline) => entry.expire();

/** A connect attempt's deadline entry, for a lane of Deadlines; `expire` fails the attempt. */
export function attemptDeadline(expire: () => void): AttemptDeadline {
  // The entry's fields written out, as a request's are: one literal, no spread of another object.
  return {
    expire,
    deadline: 0,
    deadlineStill: 0,
    deadlinePrev: undefined,
    deadlineNext: undefined,
    deadlineLane: undefined,
    deadlineOwner: undefined,
  };
}
