// The bridge's password rule (8 to 1024 characters) as a plain function with no schema library, so the CLI
// can state and check it at its prompts without loading TypeBox at start-up. auth.ts re-exports it.

export const PASSWORD_MIN_LENGTH = 8;
export const PASSWORD_MAX_LENGTH = 1024;

/** Why a password is refused, or null. Length counts characters, as users count them. */
export function passwordProblem(password: string): string | null {
  const length = [...password].length;
  if (length < PASSWORD_MIN_LENGTH) return `must be at least ${PASSWORD_MIN_LENGTH} characters`;
  if (length > PASSWORD_MAX_LENGTH) return `must be at most ${PASSWORD_MAX_LENGTH} characters`;
  return null;
}
