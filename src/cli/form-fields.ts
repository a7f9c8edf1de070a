import { checkSchema } from '../index.js';
import type { TextPolicy } from './sanitize.js';

/** One field of an elicitation form: its name, its schema, whether it must be answered. */
export interface FormField {
  name: string;
  schema: Record<string, unknown>;
  required: boolean;
}

interface Choice {
  value: unknown;
  label: string;
}

type Schema = Record<string, unknown>;

/**
 * The choices a schema offers, in every form the elicitation spec allows: `enum` (its labels
 * from `enumNames` when given), or titled consts under `oneOf`/`anyOf`. Undefined: not a choice.
 */
function choicesOf(schema: Schema | undefined): Choice[] | undefined {
  if (!schema) return undefined;
  if (Array.isArray(schema.enum)) {
    const values = schema.enum as unknown[];
    const names = Array.isArray(schema.enumNames) ? (schema.enumNames as unknown[]) : [];
    return values.map((value, index) => ({
      value,
      label: String(names.length === values.length ? names[index] : value),
    }));
  }
  for (const key of ['oneOf', 'anyOf'] as const) {
    const branches = schema[key];
    if (!Array.isArray(branches) || branches.length === 0) continue;
    if (!branches.every((branch) => typeof branch === 'object' && branch !== null && 'const' in branch))
      continue;
    return (branches as Schema[]).map((branch) => ({
      value: branch.const,
      label: String(branch.title ?? branch.const),
    }));
  }
  return undefined;
}

/** How a field is asked: one choice, several choices, yes/no, a number, or text. */
function fieldKind(field: FormField): {
  single?: Choice[];
  several?: Choice[];
} {
  const single = choicesOf(field.schema);
  if (single) return { single };
  if (field.schema.type === 'array') {
    const several = choicesOf(field.schema.items as Schema | undefined);
    if (several) return { several };
  }
  return {};
}

/** The value shown for a default: a choice by its label. */
function shown(field: FormField, value: unknown): string {
  const { single, several } = fieldKind(field);
  const label = (choices: Choice[], item: unknown) =>
    choices.find((choice) => choice.value === item)?.label ?? String(item);
  if (single) return label(single, value);
  if (several && Array.isArray(value)) return value.map((item) => label(several, item)).join(', ');
  if (typeof value === 'boolean') return value ? 'y' : 'n';
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** The question for a field: `  Color* (1=Red, 2=Green) [default: Red] - Your color: `. */
export function question(field: FormField, policy: TextPolicy): string {
  const line = policy.line;
  const title = line(String(field.schema.title ?? field.name));
  const { single, several } = fieldKind(field);
  const numbered = (choices: Choice[]) =>
    choices.map((choice, index) => `${index + 1}=${line(choice.label)}`).join(', ');
  const options = single
    ? ` (${numbered(single)})`
    : several
      ? ` (${numbered(several)}; several: 1,3)`
      : field.schema.type === 'boolean'
        ? ' (y/n)'
        : '';
  const fallback = 'default' in field.schema ? ` [default: ${line(shown(field, field.schema.default))}]` : '';
  const hint = field.schema.description ? ` - ${line(String(field.schema.description))}` : '';
  return `  ${title}${field.required ? '*' : ''}${options}${fallback}${hint}: `;
}

function pick(choices: Choice[], text: string): Choice | undefined {
  const index = /^\d+$/.test(text) ? Number(text) - 1 : -1;
  return choices[index] ?? choices.find((choice) => String(choice.value) === text || choice.label === text);
}

/** The typed value of one answer, or a reason it is not one. */
function convert(field: FormField, text: string): { value: unknown } | { problem: string } {
  const { single, several } = fieldKind(field);
  const labels = (choices: Choice[]) => choices.map((choice) => choice.label).join(', ');
  if (single) {
    const chosen = pick(single, text);
    return chosen ? { value: chosen.value } : { problem: `choose one of ${labels(single)} (or its number)` };
  }
  if (several) {
    const chosen = text.split(',').map((part) => pick(several, part.trim()));
    if (chosen.some((choice) => choice === undefined))
      return { problem: `choose from ${labels(several)}, by number, separated by commas` };
    return { value: [...new Set(chosen.map((choice) => choice!.value))] };
  }
  switch (field.schema.type) {
    case 'boolean':
      if (/^(y|yes|true)$/i.test(text)) return { value: true };
      if (/^(n|no|false)$/i.test(text)) return { value: false };
      return { problem: 'answer y or n' };
    case 'integer':
    case 'number': {
      const number = Number(text);
      if (text === '' || !Number.isFinite(number)) return { problem: 'a number, please' };
      if (field.schema.type === 'integer' && !Number.isInteger(number))
        return { problem: 'a whole number, please' };
      return { value: number };
    }
    default:
      return { value: text };
  }
}

/**
 * One answer, typed and checked against the field's schema (formats, lengths, ranges, patterns,
 * item counts) with the project's JSON Schema validator: the value, or what is wrong with it,
 * so that the form asks that field again. `skip`: an empty answer to an optional field.
 */
export async function answerField(
  field: FormField,
  text: string,
): Promise<{ value: unknown } | { problem: string } | { skip: true }> {
  if (text === '') {
    if ('default' in field.schema) return { value: field.schema.default };
    return field.required ? { problem: 'required' } : { skip: true };
  }
  const converted = convert(field, text);
  if (!('value' in converted)) return converted;
  const check = await checkSchema(field.schema, converted.value);
  if (check.valid === false) {
    return { problem: check.errors.map((error) => error.message).join('; ') };
  }
  return converted;
}
