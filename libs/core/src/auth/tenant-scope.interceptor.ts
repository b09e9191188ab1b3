import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import { Observable } from 'rxjs';
import { RequestContext } from '../tenancy/request-context';
import { ScopedRequest } from './api-key.guard';

/** Runs the handler inside the caller's request scope, so the resource layer knows the company. */
@Injectable()
export class TenantScopeInterceptor implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const scope = context.switchToHttp().getRequest<ScopedRequest>().wharfScope;
    if (!scope) return next.handle();
    return new Observable((subscriber) =>
      RequestContext.run(scope, () => next.handle().subscribe(subscriber)),
    );
  }
}
