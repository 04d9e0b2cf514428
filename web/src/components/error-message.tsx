// The bridge's error message as it wrote it (`{error}`), or nothing.
import { Text } from './text.js';

export function ErrorMessage({ error }: { error: string | null | undefined }) {
  if (!error) return null;
  return (
    <p className="error" role="alert">
      <Text value={error} />
    </p>
  );
}
