// Reads each file named on the command line and parses its header with the safetensors crate
// (SafeTensors::read_metadata: the length, the JSON, and the crate's own validation of offsets).
fn main() {
    let mut n = 0usize;
    for path in std::env::args().skip(1) {
        let buf = std::fs::read(&path).expect("read");
        let (_, meta) = safetensors::SafeTensors::read_metadata(&buf).expect("header");
        n += meta.tensors().len();
    }
    println!("{}", n);
}
