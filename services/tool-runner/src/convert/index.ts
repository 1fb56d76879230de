export type { Conversion, ConversionLimits } from "./conversion.js";
export { convertDocument } from "./convert-document.js";
export { conversionQueueDefaults, DocumentConverter, maxConversionWorkers } from "./document-converter.js";
export { claimedFormat, documentFormat, type DocumentFormat } from "./document-format.js";
