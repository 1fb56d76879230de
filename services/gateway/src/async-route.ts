import type { NextFunction, Request, Response } from "express";

/** Passes a rejected promise of an async route to express' error handler. */
export const asyncRoute =
  (handler: (request: Request, response: Response) => Promise<void>) =>
  (request: Request, response: Response, next: NextFunction): void => {
    handler(request, response).catch(next);
  };
