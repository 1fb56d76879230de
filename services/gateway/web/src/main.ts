import { App } from "./app.js";

// a module script runs after the document is parsed, so every element the page's HTML holds exists now
new App().start();
