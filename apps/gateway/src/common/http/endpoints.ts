import {
  applyDecorators,
  Controller,
  Delete,
  Get,
  HttpCode,
  Patch,
  Post,
  UseInterceptors,
} from '@nestjs/common';
import { FileInterceptor } from '@nestjs/platform-express';
import { ApiTags } from '@nestjs/swagger';
import { Public } from '@emailverify/service-kit';
import { ApiRoute, type RouteDocs } from '../../openapi/api-route';
import { IdempotencyKeyHeader } from '../idempotency/idempotency-key.header';
import { PerAddressLimit } from '../rate-limit/rate-classes';
import { FullScope, RawBody } from './route-policy';

// The kinds of route of the API. Each sets the HTTP method and path, what the pipeline does for the route (an
// Idempotency-Key on a POST or DELETE, no API key for a signed link, a body the handler reads itself) and its
// entry in both OpenAPI documents (ApiRoute: the reply in both styles, the errors, the headers), so a route's
// behaviour and its documentation cannot drift apart. `path` is relative to the controller's; '/' is its own.

/** A GET: repeated as it is, so no Idempotency-Key. */
export const ReadRoute = (path: string, docs: RouteDocs): MethodDecorator =>
  applyDecorators(ApiRoute(docs), Get(path));

/**
 * A POST that does something (creates, verifies, changes a job): answers 200 (Nest's default for POST is 201)
 * and takes an Idempotency-Key, so a retry is not done or charged twice.
 */
export const ActionRoute = (path: string, docs: RouteDocs): MethodDecorator =>
  applyDecorators(ApiRoute(docs), Post(path), HttpCode(200), IdempotencyKeyHeader());

/**
 * An ActionRoute whose body is a multipart form with one file (field `file`): the handler's multer interceptor
 * reads the request stream itself, after the guards.
 */
export const UploadRoute = (path: string, docs: RouteDocs): MethodDecorator =>
  applyDecorators(ActionRoute(path, docs), RawBody(), UseInterceptors(FileInterceptor('file')));

/** A PATCH: applied twice it leaves what once does, so no Idempotency-Key. */
export const UpdateRoute = (path: string, docs: RouteDocs): MethodDecorator =>
  applyDecorators(ApiRoute(docs), Patch(path));

/** A DELETE: takes an Idempotency-Key, as a POST does, so a retry gets the first reply again. */
export const RemoveRoute = (path: string, docs: RouteDocs): MethodDecorator =>
  applyDecorators(ApiRoute(docs), IdempotencyKeyHeader(), Delete(path));

/**
 * A GET through a signed link: no API key (its signature is the permission), rate-limited per client address
 * instead of per key, and documented without security.
 */
export const SignedLinkRoute = (path: string, docs: RouteDocs): MethodDecorator =>
  applyDecorators(ApiRoute({ ...docs, public: true }), Get(path), PerAddressLimit(), Public());

/**
 * A controller of routes that manage the account (keys, webhooks), tagged by its path in the documents: a key
 * of the `verify` scope is refused on every one of them with 403 INSUFFICIENT_SCOPE.
 */
export const ManagementController = (path: string): ClassDecorator =>
  applyDecorators(ApiTags(path), FullScope(), Controller(path));
