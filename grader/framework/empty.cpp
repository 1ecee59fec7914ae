// Stands in for a lab's support code when it has none (a static library needs one source).
