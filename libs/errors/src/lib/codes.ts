/** Canonical (gRPC) status codes. Errors carry one; the gateway turns it into HTTP exactly once. */
export enum Code {
  OK = 0,
  Canceled = 1,
  Unknown = 2,
  InvalidArgument = 3,
  DeadlineExceeded = 4,
  NotFound = 5,
  AlreadyExists = 6,
  PermissionDenied = 7,
  ResourceExhausted = 8,
  FailedPrecondition = 9,
  Aborted = 10,
  OutOfRange = 11,
  Unimplemented = 12,
  Internal = 13,
  Unavailable = 14,
  DataLoss = 15,
  Unauthenticated = 16,
}

/** The one code → HTTP status table (grpc-gateway's HTTPStatusFromCode, as TTS uses it). */
export function httpStatusFromCode(code: Code): number {
  switch (code) {
    case Code.OK:
      return 200;
    case Code.Canceled:
      return 499;
    case Code.Unknown:
      return 500;
    case Code.InvalidArgument:
      return 400;
    case Code.DeadlineExceeded:
      return 504;
    case Code.NotFound:
      return 404;
    case Code.AlreadyExists:
      return 409;
    case Code.PermissionDenied:
      return 403;
    case Code.ResourceExhausted:
      return 429;
    case Code.FailedPrecondition:
      return 400;
    case Code.Aborted:
      return 409;
    case Code.OutOfRange:
      return 400;
    case Code.Unimplemented:
      return 501;
    case Code.Internal:
      return 500;
    case Code.Unavailable:
      return 503;
    case Code.DataLoss:
      return 500;
    case Code.Unauthenticated:
      return 401;
  }
}

/** The HTTP status of an error: its own where it has one, else its code's. */
export function httpStatusOf(error: { code: Code; httpStatus?: number }): number {
  return error.httpStatus ?? httpStatusFromCode(error.code);
}

/** The canonical code's name (`NotFound`), as metrics and logs label results. */
export function codeName(code: number): string {
  return (Code[code] as string | undefined) ?? String(code);
}
