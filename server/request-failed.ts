// The one error of a call to a svc server (the bridge, or a ship `svc client --url` names): what kind of failure
// it is, the status and the server's own `{error}` text when the server answered, and the underlying error as
// `cause` when nothing did. Made by server/svc-client.ts; callers match on this class and its `kind` or `status`,
// never on the message, whose wording belongs to the caller (docs/DECISIONS.md, "The house: one client of svc's
// servers").
//   unavailable   nothing answered, a 3xx (never followed), a 5xx that is not the route's own verdict, or an
//                 answer that is not the server's: ask again later, the server (or its path) is the problem;
//   timeout       no whole answer within the call's deadline;
//   unauthorized  401 (after the one renewal the credential allows) or 403;
//   refused       the server judged the request: another 4xx, or a 5xx the route declares as its verdict.

export type RequestFailureKind = 'unavailable' | 'timeout' | 'unauthorized' | 'refused';

/** What is known of a failed call, from which the caller's wording is made. */
export interface FailedCall {
  kind: RequestFailureKind;
  method: string;
  /** The route pattern (`/ships/:name`) when the call gave one, else its path. */
  route: string;
  /** The server's base URL. */
  url: string;
  /** The HTTP status, or undefined when nothing answered. */
  status?: number;
  /** The server's `{error}` (else `{message}`, else its text, else `HTTP <status>`) when it answered. */
  detail?: string;
  /** Why nothing answered: the system's code (ECONNREFUSED…) or `timed out`. */
  reason?: string;
}

export class RequestFailed extends Error {
  override readonly name = 'RequestFailed';
  readonly kind: RequestFailureKind;
  readonly status: number | undefined;
  readonly detail: string | undefined;

  constructor(message: string, failure: Pick<FailedCall, 'kind' | 'status' | 'detail'>, options?: ErrorOptions) {
    super(message, options);
    this.kind = failure.kind;
    this.status = failure.status;
    this.detail = failure.detail;
  }
}

/** A failure in which the server judged the request: it always carries the status and the server's text. */
export type Refusal = RequestFailed & { readonly kind: 'refused'; readonly status: number; readonly detail: string };

export function isRefusal(error: unknown): error is Refusal {
  return error instanceof RequestFailed && error.kind === 'refused' && error.status !== undefined;
}
