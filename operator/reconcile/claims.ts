// Which bridge names other objects of the same kind hold. The bridge's ship and repo names are global, so
// two Ships (or Repos) can aim at one name; the one whose status records it holds it. Acquiring a name
// (registering, adopting, replacing) is blocked by any other holder. Two holders at once can only come from
// reconciles racing on a stale cache; then the senior object (older creationTimestamp, then namespace/name)
// keeps the name and the junior yields, so the pair never flips back and forth.
import type { V1ObjectMeta } from '@kubernetes/client-node';

export interface Claim {
  namespace: string;
  name: string;
  /** The holder is older than the object being reconciled (it wins a tie). */
  senior: boolean;
}

interface Claimant {
  metadata: V1ObjectMeta;
}

function seniority(metadata: V1ObjectMeta): [number, string] {
  const created = metadata.creationTimestamp
    ? new Date(metadata.creationTimestamp as unknown as string).getTime()
    : Number.MAX_SAFE_INTEGER;
  return [
    Number.isNaN(created) ? Number.MAX_SAFE_INTEGER : created,
    `${metadata.namespace ?? ''}/${metadata.name ?? ''}`,
  ];
}

function isSenior(a: V1ObjectMeta, b: V1ObjectMeta): boolean {
  const [timeA, keyA] = seniority(a);
  const [timeB, keyB] = seniority(b);
  return timeA !== timeB ? timeA < timeB : keyA < keyB;
}

/** Bridge name → the other object holding it, as seen from `self`. `heldName` reads an object's status. */
export function claimsAgainst<T extends Claimant>(
  self: Claimant,
  others: readonly T[],
  heldName: (object: T) => string | undefined,
): Map<string, Claim> {
  const claims = new Map<string, Claim>();
  for (const other of others) {
    if (other.metadata.uid && other.metadata.uid === self.metadata.uid) continue;
    if (
      !other.metadata.uid &&
      other.metadata.name === self.metadata.name &&
      other.metadata.namespace === self.metadata.namespace
    )
      continue;
    const held = heldName(other);
    if (!held) continue;
    const claim: Claim = {
      namespace: other.metadata.namespace ?? '',
      name: other.metadata.name ?? '',
      senior: isSenior(other.metadata, self.metadata),
    };
    const existing = claims.get(held);
    if (!existing || (claim.senior && !existing.senior)) claims.set(held, claim);
  }
  return claims;
}

export function describeClaim(kind: string, claim: Claim): string {
  return `${kind} ${claim.namespace}/${claim.name}`;
}
