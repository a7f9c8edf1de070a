/** A mistake in how the command was called: one line on stderr, exit code 2. */
export class UsageProblem extends Error {}

/** Tool arguments that do not match the tool's input schema (exit code 2; --help would not help). */
export class InvalidArguments extends UsageProblem {}
