// The package ships no type declarations: it exports one array of role local parts (lowercase).
declare module 'role-based-email-addresses' {
  const roleLocalParts: readonly string[];
  export = roleLocalParts;
}
