/* The program each layer's link check builds (CMakeLists.txt ifsim_layer):
 * every object of one layer's library, linked against the layers below it
 * and nothing else.  It is never run: that it links is the check, since an
 * object calling up the layer order leaves a symbol nothing resolves. */
int main(void)
{
  return 0;
}
