/**
 * `jsoncallback=name` wraps the body as `name(...)`. The name is echoed into executable
 * JavaScript, so only identifiers (optionally dotted, as jQuery's generated names are) pass.
 */

const CALLBACK_NAME = /^[A-Za-z_$][\w$]*(\.[A-Za-z_$][\w$]*)*$/;
const MAX_CALLBACK_LENGTH = 128;

export function isValidCallbackName(name: string): boolean {
  return name.length <= MAX_CALLBACK_LENGTH && CALLBACK_NAME.test(name);
}

export function wrapJsonp(name: string, json: string): string {
  return `${name}(${json})`;
}

export const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';
export const JSONP_CONTENT_TYPE = 'application/javascript; charset=utf-8';
