// Error bodies on the wire: `{error}` for every handled failure, and the 422 validation body.
import { Type, type Static } from 'typebox';

export const ErrorBody = Type.Object({ error: Type.String() });
export type ErrorBody = Static<typeof ErrorBody>;

/** One failed check of a request part; `path` is a JSON pointer inside that part. */
export const ValidationIssue = Type.Object({
  part: Type.Union([Type.Literal('body'), Type.Literal('querystring'), Type.Literal('params'), Type.Literal('headers')]),
  path: Type.String(),
  message: Type.String(),
});
export type ValidationIssue = Static<typeof ValidationIssue>;

/** 422 body: the validator's findings, not `{error}` (spec). `message` summarises the first issue. */
export const ValidationErrorBody = Type.Object({
  message: Type.String(),
  issues: Type.Array(ValidationIssue),
});
export type ValidationErrorBody = Static<typeof ValidationErrorBody>;
