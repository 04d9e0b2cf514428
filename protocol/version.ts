// The version of svc: what `svc --version` prints and the OpenAPI documents carry. package.json holds the
// same string (protocol/version.test.ts keeps them equal); kept here so nothing reads package.json at run time.
export const SVC_VERSION = '0.1.0';
