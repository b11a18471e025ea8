import { ApiError, describeApiError, detailsText } from './errors';

describe('describeApiError', () => {
  it('prints the request, the status, the TTS message and the cause chain', () => {
    const body = {
      code: 3,
      message: 'error:pkg/errors:validation (invalid `end_device`: embedded message failed validation)',
      details: [
        {
          namespace: 'pkg/errors',
          name: 'validation',
          message_format: 'invalid `{field}`: {reason}',
          attributes: { field: 'end_device', reason: 'embedded message failed validation' },
          cause: {
            namespace: 'pkg/errors',
            name: 'validation',
            message_format: 'invalid `{field}`: {reason}',
            attributes: { field: 'frequency_plan_id', reason: 'unknown frequency plan' },
          },
        },
      ],
    };
    const err = new ApiError('PUT /api/v3/ns/applications/app1/devices/dev1', 400, body, `HTTP 400: ${body.message}`);
    expect(describeApiError(err)).toEqual([
      'PUT /api/v3/ns/applications/app1/devices/dev1: HTTP 400: error:pkg/errors:validation (invalid `end_device`: embedded message failed validation)',
      '  cause: error:pkg/errors:validation (invalid `frequency_plan_id`: unknown frequency plan)',
    ]);
  });

  it('lists forbidden field-mask paths', () => {
    const body = {
      code: 3,
      message: 'm',
      details: [{ namespace: 'pkg/rpcmiddleware/validator', name: 'field_mask_paths', attributes: { forbidden_paths: ['a', 'b'] } }],
    };
    expect(describeApiError(new ApiError('GET /x', 400, body, 'HTTP 400: m'))).toEqual(['GET /x: HTTP 400: m', '  forbidden paths: a, b']);
  });

  it('fills attributes into the message format, leaving unknown placeholders', () => {
    expect(detailsText({ namespace: 'n', name: 'x', message_format: 'device `{device_uid}` {other}', attributes: { device_uid: 'app1.dev1' } })).toBe(
      'error:n:x (device `app1.dev1` {other})',
    );
  });

  it('tells which failures may have been applied anyway', () => {
    expect(new ApiError('r', undefined, undefined, 'm').outcomeUnknown).toBe(true);
    expect(new ApiError('r', 504, undefined, 'm').outcomeUnknown).toBe(true);
    expect(new ApiError('r', 400, undefined, 'm').outcomeUnknown).toBe(false);
    expect(new ApiError('r', 404, undefined, 'm').notFound).toBe(true);
  });
});
