// The detach chord of `svc client attach`: Ctrl-] (0x1d), as telnet has it. Everything before it in the same
// read is still sent; the chord itself never reaches the workspace.
export const DETACH_BYTE = 0x1d;
export const DETACH_DESCRIPTION = 'Ctrl-]';
/** For `svc client attach --help`, here rather than in attach-session.ts so the help does not load `ws`. */
export const ATTACH_HELP = `Detach with ${DETACH_DESCRIPTION}; the workspace's session keeps running.`;

export function splitAtDetach(chunk: Buffer): { before: Buffer; detach: boolean } {
  const index = chunk.indexOf(DETACH_BYTE);
  return index === -1 ? { before: chunk, detach: false } : { before: chunk.subarray(0, index), detach: true };
}
