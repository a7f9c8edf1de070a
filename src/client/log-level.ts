import { CapabilityError, UsageError } from '../errors.js';
import { isLogLevel, LOG_LEVELS, type LogLevel } from '../protocol/meta.js';
import { describe } from '../validate.js';
import type { ClientWarning } from './warnings.js';

/** `setLogLevel`'s argument, checked before anything changes: a UsageError, as for any call-time misuse. */
export function checkedLogLevel(value: unknown, server: string): LogLevel {
  if (isLogLevel(value)) return value;
  throw new UsageError(
    `setLogLevel: the level must be one of ${LOG_LEVELS.join(', ')}, got ${describe(value)}`,
    {
      server,
    },
  );
}

/**
 * A level is wanted (the `logLevel` option or `setLogLevel`) and the server does not declare
 * `logging`: the same warning either way, nothing sent; the level is kept for a later process.
 */
export function loggingUnsupported(server: string, level: LogLevel): ClientWarning {
  const message = `the server does not declare the logging capability; log level ${level} not applied`;
  return {
    type: 'log_level_unsupported',
    message: `${server}: ${message}`,
    error: new CapabilityError('logging/setLevel', message, { server }),
  };
}
