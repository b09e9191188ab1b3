import { HttpException } from '@nestjs/common';

/** A JSON:API error object, which Ember Data maps onto record errors. */
export interface ErrorObject {
  status: string;
  code: string;
  title: string;
  detail: string;
  source?: { pointer?: string; parameter?: string; header?: string };
  meta?: Record<string, unknown>;
}

export const ERROR_TITLES: Record<number, [code: string, title: string]> = {
  400: ['bad_request', 'Bad request'],
  401: ['unauthorized', 'Unauthorized'],
  403: ['forbidden', 'Forbidden'],
  404: ['not_found', 'Not found'],
  405: ['method_not_allowed', 'Method not allowed'],
  408: ['request_timeout', 'Request timeout'],
  409: ['conflict', 'Conflict'],
  413: ['payload_too_large', 'Payload too large'],
  414: ['uri_too_long', 'URI too long'],
  415: ['unsupported_media_type', 'Unsupported media type'],
  422: ['invalid', 'Unprocessable entity'],
  429: ['rate_limited', 'Too many requests'],
  431: ['headers_too_large', 'Request header fields too large'],
  500: ['internal_error', 'Internal server error'],
  503: ['unavailable', 'Service unavailable'],
};

export function errorObject(status: number, detail: string, extra: Partial<ErrorObject> = {}): ErrorObject {
  const [code, title] = ERROR_TITLES[status] ?? [status >= 500 ? 'internal_error' : 'bad_request', 'Error'];
  return { status: String(status), code, title, detail, ...extra };
}

/** An HTTP error carrying one or more JSON:API error objects. */
export class ApiError extends HttpException {
  constructor(
    status: number,
    readonly errors: ErrorObject[],
    readonly headers: Record<string, string> = {},
  ) {
    super({ errors }, status);
  }

  static of(status: number, detail: string, extra: Partial<ErrorObject> = {}): ApiError {
    return new ApiError(status, [errorObject(status, detail, extra)]);
  }

  /** An error the same request may get past later: `Retry-After` says in how many seconds. */
  static retryAfter(
    status: number,
    seconds: number,
    detail: string,
    extra: Partial<ErrorObject> = {},
  ): ApiError {
    return new ApiError(status, [errorObject(status, detail, extra)], { 'retry-after': String(seconds) });
  }

  static badParameter(parameter: string, detail: string): ApiError {
    return ApiError.of(400, detail, { source: { parameter } });
  }

  static notFound(detail = 'The requested resource does not exist.'): ApiError {
    return ApiError.of(404, detail);
  }

  static invalid(pointer: string, detail: string): ApiError {
    return ApiError.of(422, detail, { source: { pointer } });
  }
}
