import { ConfigError } from '../errors.js';

// Not exported: the published .d.ts files must not name the optional peer, which a user without it
// could not resolve (scripts/ci/package-types.mjs compiles them with skipLibCheck off).
type OpenTelemetryApi = typeof import('@opentelemetry/api');

let loading: Promise<OpenTelemetryApi> | undefined;

const PACKAGE = '@opentelemetry/api';

/**
 * The module `@opentelemetry/api`, imported the first time a client with telemetry connects (an
 * optional peer dependency: nothing loads it while telemetry is off). Rejects with a ConfigError
 * naming `key` and the package to install when it cannot be imported.
 */
export async function loadOpenTelemetryApi(key: string): Promise<unknown> {
  loading ??= import('@opentelemetry/api').then(
    (module: OpenTelemetryApi & { default?: OpenTelemetryApi }) =>
      module.trace === undefined && module.default !== undefined ? module.default : module,
    (error: unknown) => {
      loading = undefined;
      throw error;
    },
  );
  try {
    return await loading;
  } catch (error) {
    const missing = (error as { code?: unknown }).code === 'ERR_MODULE_NOT_FOUND';
    throw new ConfigError(
      key,
      missing
        ? `${key} needs the package ${PACKAGE}, which is not installed: npm install ${PACKAGE}`
        : `${key}: ${PACKAGE} could not be loaded (${(error as Error).message})`,
      { cause: error },
    );
  }
}
