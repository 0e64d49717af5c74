// The headers test: the generated translation units (one per public header, see
// CMakeLists.txt) are linked into this program. Building it is the test; running it only
// proves the link succeeded.
int main() { return 0; }
