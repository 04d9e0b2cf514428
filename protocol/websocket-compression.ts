// Which WebSocket messages the ship and the bridge compress when a client negotiated permessage-deflate
// (issue #18; the spec: "permessage-deflate is negotiated when the client offers it", and every browser
// offers it). With context takeover negotiated, `ws` compresses every message whatever its size (its
// `threshold` applies only without context takeover), once per socket, through zlib's thread pool: a
// 300-byte event cost 500 deflate calls to reach 500 subscribers, and a one-cell terminal patch waited for a
// thread-pool round trip. So every send site says per message: small frames go as they are, large ones
// (a `sync` of many workspaces, a `grid`, a full-screen patch) compressed, where repetitive JSON and
// coloured cells shrink to a small fraction. Figures in docs/DECISIONS.md.
//
// The negotiation itself stays ws's default (`perMessageDeflate: true` on both servers): any offer is
// accepted. A smaller server window would halve what a compressing socket keeps, but ws then refuses a client
// that asks for a still smaller one, breaking the spec's rule (docs/DECISIONS.md).

/** Messages of fewer UTF-16 code units than this are sent uncompressed (the same bar `ws` applies by itself without context takeover). */
export const WEBSOCKET_COMPRESS_MIN_LENGTH = 1024;

const COMPRESSED = Object.freeze({ compress: true });
const UNCOMPRESSED = Object.freeze({ compress: false });

/**
 * The `ws` send options for `text`: compressed when it is large enough to pay, if the peer negotiated
 * permessage-deflate (without it `ws` ignores the flag). One rule for every send site.
 */
export function compressionFor(text: string): { readonly compress: boolean } {
  return worthCompressing(text.length) ? COMPRESSED : UNCOMPRESSED;
}

/** The same rule on a text's length in UTF-16 code units (for a text kept in pieces). */
export function worthCompressing(length: number): boolean {
  return length >= WEBSOCKET_COMPRESS_MIN_LENGTH;
}
