import { IncomingMessage, ServerResponse } from 'node:http'
import type { Socket } from 'node:net'
import type { Express } from 'express'

/**
 * The request and response classes node's HTTP server makes for `app`: node's own, but whose
 * prototypes are the app's request and response (`app.request`, `app.response`). Express gives
 * every request and response those prototypes when it takes them (`Object.setPrototypeOf` in
 * `app.handle`); made with them from the start, the objects never change their shape, and
 * express's own call finds the prototype already set and changes nothing. Changing it on each
 * request made V8 keep much of every request's garbage past a young-generation collection:
 * on this project's 2-core machine a bare Express 5 app allocated about 10 MB between two
 * scavenges and promoted 40 % of it, each scavenge paused 10-15 ms, and the app answered a third
 * of the requests it answers with these classes (`npm run bench -- middleware`, README).
 */
export const requestClassesOf = (app: Express) => {
  // Node's server calls `new IncomingMessage(socket)` and `new ServerResponse(req, options)`;
  // both of node's are constructors that may be called on an object made elsewhere.
  function ExpressRequest(this: IncomingMessage, socket: Socket) {
    Reflect.apply(IncomingMessage, this, [socket])
  }
  ExpressRequest.prototype = app.request
  function ExpressResponse(this: ServerResponse, req: IncomingMessage, options?: object) {
    Reflect.apply(ServerResponse, this, [req, options])
  }
  ExpressResponse.prototype = app.response
  return {
    IncomingMessage: ExpressRequest as unknown as typeof IncomingMessage,
    ServerResponse: ExpressResponse as unknown as typeof ServerResponse,
  }
}
