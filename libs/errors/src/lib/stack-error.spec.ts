import { Code, httpStatusFromCode } from './codes';
import { defineError, formatMessage, StackError } from './stack-error';
import { ERROR_DETAILS_TYPE } from './error-details';

describe('httpStatusFromCode', () => {
  it.each([
    [Code.OK, 200],
    [Code.Canceled, 499],
    [Code.Unknown, 500],
    [Code.InvalidArgument, 400],
    [Code.DeadlineExceeded, 504],
    [Code.NotFound, 404],
    [Code.AlreadyExists, 409],
    [Code.PermissionDenied, 403],
    [Code.ResourceExhausted, 429],
    [Code.FailedPrecondition, 400],
    [Code.Aborted, 409],
    [Code.OutOfRange, 400],
    [Code.Unimplemented, 501],
    [Code.Internal, 500],
    [Code.Unavailable, 503],
    [Code.DataLoss, 500],
    [Code.Unauthenticated, 401],
  ])('maps code %i to HTTP %i (TTS table)', (code, status) => {
    expect(httpStatusFromCode(code)).toBe(status);
  });
});

describe('StackError', () => {
  const ErrNotFound = defineError('pkg/x', 'thing_not_found', 'thing `{id}` not found in `{app}`', Code.NotFound);

  it('formats the message and the TTS status body', () => {
    const err = ErrNotFound.with({ id: 'dev1', app: 'app1' });
    expect(err.message).toBe('thing `dev1` not found in `app1`');
    const status = err.toStatus();
    expect(status.code).toBe(5);
    expect(status.message).toBe('error:pkg/x:thing_not_found (thing `dev1` not found in `app1`)');
    expect(status.details?.[0]).toMatchObject({
      '@type': ERROR_DETAILS_TYPE,
      namespace: 'pkg/x',
      name: 'thing_not_found',
      message_format: 'thing `{id}` not found in `{app}`',
      attributes: { id: 'dev1', app: 'app1' },
      code: 5,
    });
    expect(status.details?.[0].correlation_id).toMatch(/^[0-9a-f]{32}$/);
  });

  it('survives the transport as data, cause included', () => {
    const cause = defineError('pkg/y', 'inner', 'inner {n}', Code.InvalidArgument).with({ n: 1 });
    const err = ErrNotFound.with({ id: 'a', app: 'b' }, cause);
    const back = StackError.fromDetails(JSON.parse(JSON.stringify(err.toDetails())));
    expect(ErrNotFound.matches(back)).toBe(true);
    expect(back.fullMessage).toBe(err.fullMessage);
    expect(back.correlationId).toBe(err.correlationId);
    expect(back.toDetails().cause).toMatchObject({ namespace: 'pkg/y', name: 'inner', attributes: { n: 1 } });
  });

  it('carries typed details (TTS WithDetails) in its ErrorDetails, across the transport and into the status body', () => {
    const detail = { '@type': 'type.googleapis.com/ttn.lorawan.v3.DownlinkQueueOperationErrorDetails', min_f_cnt_down: 6 };
    const err = ErrNotFound.with({ id: 'a', app: 'b' }).withDetails(detail);
    expect([err.errorName, err.code, err.attributes]).toEqual(['thing_not_found', 5, { id: 'a', app: 'b' }]);
    expect(err.toDetails().details).toEqual([detail]);
    const back = StackError.fromDetails(JSON.parse(JSON.stringify(err.toDetails())));
    expect(back.correlationId).toBe(err.correlationId);
    expect(back.detailOfType(detail['@type'])).toEqual(detail);
    expect(back.detailOfType('type.googleapis.com/other')).toBeUndefined();
    expect(back.toStatus().details?.[0].details).toEqual([detail]);
    expect(ErrNotFound.with({ id: 'a', app: 'b' }).toDetails()).not.toHaveProperty('details');
  });

  it('leaves unknown placeholders and renders non-strings as JSON', () => {
    expect(formatMessage('{a} {b} {c}', { a: 'x', b: ['p', 'q'] })).toBe('x ["p","q"] {c}');
  });
});
