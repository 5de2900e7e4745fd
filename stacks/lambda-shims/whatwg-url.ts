// node-fetch v2 falls back to the whatwg-url package only where Node's own URL is missing; Node 22 always has it.
export const URL = globalThis.URL;
export const URLSearchParams = globalThis.URLSearchParams;
export default { URL, URLSearchParams };
