/**
 * How long `next start` keeps an idle connection open (Node's default is 5 s). Above the usual 60 s idle timeout of a
 * load balancer, and longer than any pause of a client between two requests on one connection, so that no request is
 * sent on a connection the server is closing at that moment (the client would get a reset, not an answer).
 */
export const KEEP_ALIVE_MS = "65000";
