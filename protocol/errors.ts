// Error bodies on the wire: `{error}` for every handled failure, and the 422 validation body.
import { Type, type Static } from 'typebox';

export const ErrorBody = Type.Object({ error: Type.String() });
export type ErrorBody = Static<typeof ErrorBody>;

/** One failed check of a request part; `path` is a JSON pointer inside that part. */
export const ValidationIssue = Type.Object({
  part: Type.Union([
    Type.Literal('body'),
    Type.Literal('querystring'),
    Type.Literal('params'),
    Type.Literal('headers'),
  ]),
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

/** A validator finding as TypeBox reports it. */
export interface SchemaIssue {
  keyword?: string;
  instancePath?: string;
  message?: string;
  params?: { requiredProperties?: string[] };
}

/** The 422 body for a part's findings; a missing property is reported at its own pointer. */
export function validationBody(part: string, issues: SchemaIssue[]): ValidationErrorBody {
  const mapped: ValidationIssue[] = issues.flatMap((issue) =>
    issue.keyword === 'required' && issue.params?.requiredProperties?.length
      ? issue.params.requiredProperties.map((property) => ({
          part: part as ValidationIssue['part'],
          path: `${issue.instancePath ?? ''}/${property}`,
          message: 'is required',
        }))
      : [
          {
            part: part as ValidationIssue['part'],
            path: issue.instancePath ?? '',
            message: issue.message ?? 'is invalid',
          },
        ],
  );
  const first = mapped[0];
  return { message: first ? `${first.part}${first.path} ${first.message}` : `${part} is invalid`, issues: mapped };
}

/**
 * When every finding is an identifier rule on one of `fields` (JSON pointers), the field to blame (the
 * first of `fields` that failed) and the rule it broke, as the spec words it: the spec answers those with
 * 400 `invalid … identifier`, not 422, and svc appends the rule (`…: must not contain path separators`).
 */
export function identifierFailureField(
  issues: SchemaIssue[],
  fields: string[],
): { field: string; reason: string } | null {
  if (
    issues.length === 0 ||
    !issues.every((issue) => issue.keyword === '~refine' && fields.includes(issue.instancePath ?? ''))
  )
    return null;
  for (const field of fields) {
    const issue = issues.find((candidate) => candidate.instancePath === field);
    if (issue) return { field, reason: issue.message ?? 'invalid identifier' };
  }
  return null;
}
