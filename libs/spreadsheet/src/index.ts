// What the file service and the web console both read from an XLSX file, each with its own XML parser and its
// own limits: worksheet cells and rows, the shared-strings table, part relationships, and OOXML's text rules.
// Browser-safe on purpose (no Node.js module, no package): the console reads a file's first rows with it
// before the upload, so the columns it shows are the ones the service will read.
export * from './relationships';
export * from './shared-strings';
export * from './worksheet';
export * from './xml';
