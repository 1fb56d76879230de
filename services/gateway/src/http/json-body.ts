import express, { type RequestHandler } from "express";

/**
 * The JSON body parser of every route that takes JSON: objects and arrays only (`strict`), at most `limitBytes`
 * (BODY_LIMIT_BYTES); a larger body is PAYLOAD_TOO_LARGE and a malformed one BAD_REQUEST (to-app-error.ts).
 */
export const jsonBody = (limitBytes: number): RequestHandler => express.json({ limit: limitBytes, strict: true });
