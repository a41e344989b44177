// The Content-Security-Policy of every response, shared by next.config.mjs (static files and route handlers) and
// proxy.ts (pages, which add a per-request script nonce so that no inline script without it can run).

/**
 * @param {{ nonce?: string, dev?: boolean }} options
 * @returns {string}
 */
export function contentSecurityPolicy({ nonce, dev = false } = {}) {
  const eval_ = dev ? " 'unsafe-eval'" : "";
  // Without a nonce (responses that are not pages) inline scripts are refused outright.
  const scripts = nonce ? `'self' 'nonce-${nonce}' 'strict-dynamic'${eval_}` : `'self'${eval_}`;
  return [
    "default-src 'self'",
    `script-src ${scripts}`,
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self'",
    `connect-src 'self'${dev ? " ws:" : ""}`,
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join("; ");
}
