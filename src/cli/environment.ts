/**
 * What the command reads from its process, once, in main.ts: the functions that decide by the
 * platform or by a variable take it from here, so that a test can give them another.
 */
export interface Environment {
  platform: NodeJS.Platform;
  env: Readonly<Record<string, string | undefined>>;
  /** The user's home directory. */
  home: string;
}
