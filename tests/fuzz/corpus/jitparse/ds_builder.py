cuda_minor_mismatch_ok = {
    10: ["10.0"],
    12: ["12.0", "12.9"],
}
